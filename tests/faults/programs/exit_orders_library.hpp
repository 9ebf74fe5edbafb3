#pragma once
// Arms the static object of the exit_orders_library shared library to finalize MPI
// when it is destroyed at exit.
void finalize_when_library_guard_ends();
