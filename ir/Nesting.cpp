// The deep-stack thread of Nesting.h (POSIX threads: std::thread cannot size its stack).
#include "ir/Nesting.h"

#include <pthread.h>

namespace stencilc::ir {

namespace {

struct Job {
  const std::function<int()>* work;
  int result = 0;
};

void* run_job(void* arg) {
  auto* job = static_cast<Job*>(arg);
  job->result = (*job->work)();
  return nullptr;
}

}  // namespace

int run_with_deep_stack(const std::function<int()>& work) {
  Job job{&work};
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return work();
  pthread_t thread;
  bool started = pthread_attr_setstacksize(&attr, kDeepStackBytes) == 0 &&
                 pthread_create(&thread, &attr, run_job, &job) == 0;
  pthread_attr_destroy(&attr);
  if (!started) return work();
  pthread_join(thread, nullptr);
  return job.result;
}

}  // namespace stencilc::ir
