#pragma once
// What each kind of MPI call records. The generated wrappers call, per kind K:
//   hooks::K hook; hook.before(call, <roles of K>); <timed call>; hook.after(call, rc);
// before() runs ahead of the first clock read and after() behind the second, so
// lookups here never count as MPI time. Role order per kind: gen/gen_wrappers.py.
// In trace mode the hooks also say what the call's trace record means
// (call.trace()), and completion calls add one record per request they finish.
//
// Receives are classed by the bytes they received (their status), not by the
// buffer they posted: a program that posts 1 MiB and receives 8 B must not put
// both sizes in one minimum. Where the program ignores statuses, mpidle passes
// its own to MPI.
//
// The hooks by family, each on hooks/common.hpp:
//   hooks/common.hpp          the runtime's entry points and shared helpers
//   hooks/point_to_point.hpp  sends, receives, requests
//   hooks/probes.hpp          probes and matched receives
//   hooks/completions.hpp     Wait*, Test*
//   hooks/collectives.hpp     collectives
//   hooks/other.hpp           one-sided, file I/O, communicators, time only

#include "profiler/wrappers/hooks/collectives.hpp"
#include "profiler/wrappers/hooks/completions.hpp"
#include "profiler/wrappers/hooks/other.hpp"
#include "profiler/wrappers/hooks/point_to_point.hpp"
#include "profiler/wrappers/hooks/probes.hpp"
