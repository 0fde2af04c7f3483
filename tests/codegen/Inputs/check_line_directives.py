"""Checks the #line directives of a file stencilc generated (tests/codegen/line-directives.test).

  check_line_directives.py <generated file> <name its directives give it> <user's file>

Every line after the prologue stands under a directive. One that names the generated file must
give the line after it its own number there. Under one that names the user's file, the lines are
the user's lines from that number on (the first may start later and the last end sooner, where a
program's body was cut out), or a single line of C++ that one of the user's statements became.
Prints what is wrong and exits 1, else prints a summary."""
import re
import sys

generated_path, generated_name, user_path = sys.argv[1:4]
lines = open(generated_path).read().split("\n")
user = open(user_path).read().split("\n")
directive = re.compile(r'^#line (\d+) "((?:[^"\\]|\\.)*)"$')
problems = []
counts = {"generated": 0, "user": 0, "statement": 0}

marks = [(i, directive.match(l)) for i, l in enumerate(lines)]
marks = [(i, m) for i, m in marks if m]
if not marks:
    problems.append("no #line directive")
for k, (i, m) in enumerate(marks):
    number, name = int(m.group(1)), m.group(2).replace('\\"', '"').replace("\\\\", "\\")
    end = marks[k + 1][0] if k + 1 < len(marks) else len(lines)
    body = lines[i + 1:end]
    where = "line %d (%s)" % (i + 1, lines[i])
    if name == generated_name:
        counts["generated"] += 1
        if number != i + 2:
            problems.append("%s: the next line is line %d of the generated file" % (where, i + 2))
    elif name == user_path:
        wrong = None
        for j, text in enumerate(body):
            if k + 1 == len(marks) and j == len(body) - 1 and text == "":
                break  # the file's last newline
            want = user[number - 1 + j] if number - 1 + j < len(user) else None
            ok = want is not None and (text == want or (j == 0 and want.endswith(text)) or
                                       (j == len(body) - 1 and want.startswith(text)))
            if not ok:
                wrong = "%s: line %d is not line %d of %s: %r" % (where, i + 2 + j, number + j, user_path, text)
                break
        if wrong is None:
            counts["user"] += 1
        elif len(body) == 1 and k + 1 < len(marks):
            counts["statement"] += 1  # the C++ of one of the user's statements
            if not (0 < number <= len(user)) or not user[number - 1].strip():
                problems.append("%s: a statement on an empty or missing line of the user's file" % where)
        else:
            problems.append(wrong)
    else:
        problems.append("%s: names neither %s nor %s" % (where, generated_name, user_path))
for p in problems:
    print("error: " + p)
print("%d directives: %d generated, %d user, %d statement" % (len(marks), counts["generated"], counts["user"], counts["statement"]))
sys.exit(1 if problems else 0)
