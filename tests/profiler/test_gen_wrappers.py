#!/usr/bin/env python3
"""The wrapper generator reads any mpi.h: parameters are matched by position and
checked by type, so MPICH's names, Open MPI's names and unnamed prototypes give the
same hook calls, and a table whose parameter list is out of order is refused."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
GENERATOR = os.path.join(HERE, "..", "..", "profiler", "wrappers", "gen", "gen_wrappers.py")

TABLE = """
MPI_Init        init
MPI_Waitany(count,array_of_requests,index,status)  waitany  count=count requests=array_of_requests index=index status=status
MPI_Intercomm_merge(intercomm,high,newintracomm)  comm_create  newcomm=newintracomm
MPI_Comm_rank   time_only
"""

# Prototypes as three implementations spell them (names differ or are absent).
MPICH_STYLE = """
int MPI_Init(int *argc, char ***argv);
int MPI_Waitany(int count, MPI_Request array_of_requests[], int *indx, MPI_Status *status);
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm);
int MPI_Comm_rank(MPI_Comm comm, int *rank);
"""
OPENMPI_STYLE = """
int MPI_Init(int *argc, char ***argv) __attribute__((visibility("default")));
int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status);
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintercomm);
int MPI_Comm_rank(MPI_Comm comm, int *rank);
"""
UNNAMED = """
int MPI_Init(int *, char ***);
int MPI_Waitany(int, MPI_Request [], int *, MPI_Status *);
int MPI_Intercomm_merge(MPI_Comm, int, MPI_Comm *);
int MPI_Comm_rank(MPI_Comm, int *);
"""


def generate(table, header):
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "table.def"), "w") as f:
            f.write(table)
        with open(os.path.join(d, "mpi.h"), "w") as f:
            f.write(header)
        proc = subprocess.run([sys.executable, GENERATOR, "--table", os.path.join(d, "table.def"),
                               "--mpi-header", os.path.join(d, "mpi.h"), "--out-dir", d],
                              capture_output=True, text=True)
        wrappers = ""
        if proc.returncode == 0:
            with open(os.path.join(d, "wrappers.cpp")) as f:
                wrappers = f.read()
        return proc.returncode, wrappers, proc.stderr


def hook_lines(wrappers):
    return [l.strip() for l in wrappers.splitlines() if "hook.before(" in l]


class GeneratorReadsAnyHeader(unittest.TestCase):
    def test_same_hooks_whatever_the_parameter_names(self):
        results = [generate(TABLE, h) for h in (MPICH_STYLE, OPENMPI_STYLE, UNNAMED)]
        for rc, _, err in results:
            self.assertEqual(rc, 0, err)
        hooks = [hook_lines(w) for _, w, _ in results]
        self.assertEqual(len(hooks[0]), 3)  # Waitany, Intercomm_merge, Comm_rank
        self.assertIn("hook.before(call, count, array_of_requests, index, status);", hooks[0])
        self.assertEqual(hooks[0], hooks[1])
        self.assertEqual(hooks[0], hooks[2])

    def test_wrappers_use_the_tables_names(self):
        rc, wrappers, err = generate(TABLE, OPENMPI_STYLE)
        self.assertEqual(rc, 0, err)
        self.assertIn("int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)",
                      wrappers)
        self.assertIn("int MPI_Comm_rank(MPI_Comm arg1, int *arg2)", wrappers)

    def test_out_of_order_parameter_list_is_refused(self):
        swapped = TABLE.replace("(count,array_of_requests,index,status)",
                                "(count,array_of_requests,status,index)")
        rc, _, err = generate(swapped, UNNAMED)
        self.assertNotEqual(rc, 0)
        self.assertIn("'index' is MPI_Status*", err)

    def test_wrong_parameter_count_is_refused(self):
        short = TABLE.replace("(intercomm,high,newintracomm)", "(intercomm,newintracomm)")
        rc, _, err = generate(short, MPICH_STYLE)
        self.assertNotEqual(rc, 0)
        self.assertIn("lists 2 parameters, this mpi.h declares 3", err)

    def test_roles_need_a_parameter_list(self):
        rc, _, err = generate("MPI_Comm_rank  send  peer=rank\n", MPICH_STYLE)
        self.assertNotEqual(rc, 0)
        self.assertIn("roles need the parameter list", err)


if __name__ == "__main__":
    unittest.main()
