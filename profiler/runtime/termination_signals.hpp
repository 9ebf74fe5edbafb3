#pragma once
// A rank ended by a signal a launcher or batch system sends to end a job
// (SIGTERM, SIGINT, SIGHUP, SIGXCPU) writes its partial profile first, then ends by
// that signal as it would have without mpidle.
//
// Writing a profile allocates, which a signal handler must not do: the signal may
// have interrupted the program inside malloc. So the handler only wakes a thread
// that writes, waits for it with a deadline (a thread stuck behind a lock the
// interrupted code holds cannot stall the end by more than that), and then ends
// the process by the same signal with its default action.

namespace mpidle::profiler {

// Installs the handler for each of those signals whose action is still the
// default (a handler of the program or of MPI is left alone) and starts the
// writing thread, which calls `write_partial` with the signal's name. Returns false
// when nothing was installed. Call once per process, from the rank's own process.
bool watch_termination_signals(void (*write_partial)(const char* ended));

}  // namespace mpidle::profiler
