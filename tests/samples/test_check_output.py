#!/usr/bin/env python3
"""Unit tests of check_output.py: a comparison that cannot fail would make every sample test
meaningless, so each way an output can be wrong is tried here."""
import os
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_output  # noqa: E402

LINE = "jacobi2d 64x64 iters=200 norm=2.061117e-02 checksum=5.950564718e+02"


class CompareLines(unittest.TestCase):
    def differs(self, got, want=LINE, rtol=1e-5, atol=0.0):
        return check_output.compare_lines([got], [want], rtol, atol)

    def test_identical(self):
        self.assertEqual(self.differs(LINE), [])

    def test_within_tolerance(self):
        self.assertEqual(self.differs(LINE.replace("5.950564718e+02", "5.950564800e+02")), [])

    def test_changed_float(self):
        self.assertTrue(self.differs(LINE.replace("5.950564718e+02", "5.950664718e+02")))
        self.assertTrue(self.differs(LINE.replace("2.061117e-02", "-2.061117e-02")))

    def test_exact_without_rtol(self):
        self.assertTrue(self.differs(LINE.replace("718e+02", "719e+02"), rtol=0.0))

    def test_changed_integer(self):
        self.assertTrue(self.differs(LINE.replace("iters=200", "iters=201")))
        self.assertTrue(self.differs(LINE.replace("64x64", "64x65"), rtol=1.0))

    def test_changed_text(self):
        self.assertTrue(self.differs(LINE + " match", LINE + " MISMATCH"))
        self.assertTrue(self.differs(LINE.replace("norm", "nrm")))

    def test_number_against_text(self):
        self.assertTrue(self.differs(LINE.replace("5.950564718e+02", "nan")))

    def test_missing_and_extra_lines(self):
        self.assertTrue(check_output.compare_lines([], [LINE], 1e-5, 0.0))
        self.assertTrue(check_output.compare_lines([LINE, LINE], [LINE], 1e-5, 0.0))

    def test_zero_needs_atol(self):
        self.assertTrue(self.differs("maxdiff=1.0e-30", "maxdiff=0.000e+00"))
        self.assertEqual(self.differs("maxdiff=1.0e-30", "maxdiff=0.000e+00", atol=1e-20), [])


class ExpectedFiles(unittest.TestCase):
    def test_directives_and_comments(self):
        lines, rtol, atol = check_output.parse_expected(
            "# produced by hand\n# rtol: 1e-9\n# atol: 1e-300\n" + LINE + "\n")
        self.assertEqual((lines, rtol, atol), ([LINE], 1e-9, 1e-300))


if __name__ == "__main__":
    unittest.main()
