"""mpi4py callsites (issue 43): rank 0 sends to rank 1 from one function, then
again from another; rank 1 receives each in a function of its own, so that the two
comm.Recv lines must come out as two callsites. Then rank 0 broadcasts a Python
object with comm.bcast, whose pickle's size rank 0 prints; the program ends
without MPI.Finalize() (mpi4py finalizes MPI at interpreter exit).

Prints one JSON line on rank 0: {"pickled": bytes of the pickle, "broadcasts": N,
"messages": messages per Recv line}.
Run it with Debian's interpreter, /usr/bin/python3 (python3-mpi4py).
"""
import json
import pickle

from mpi4py import MPI

MESSAGES = 25
BROADCASTS = 3


def receive_left(comm, buffer):
    comm.Recv([buffer, MPI.BYTE], source=0, tag=1)  # the left receive


def receive_right(comm, buffer):
    comm.Recv([buffer, MPI.BYTE], source=0, tag=2)  # the right receive


def main():
    comm = MPI.COMM_WORLD
    buffer = bytearray(1024)
    for _ in range(MESSAGES):
        if comm.rank == 0:
            comm.Send([buffer, MPI.BYTE], dest=1, tag=1)
            comm.Send([buffer, MPI.BYTE], dest=1, tag=2)
        elif comm.rank == 1:
            receive_left(comm, buffer)  # calls the left receive
            receive_right(comm, buffer)  # calls the right receive
    table = {"step": 7, "names": ["mpidle" * 20, "python" * 10], "weights": list(range(30))}
    for _ in range(BROADCASTS):
        got = comm.bcast(table if comm.rank == 0 else None, root=0)  # the broadcast
    assert got == table
    if comm.rank == 0:
        print(json.dumps({"pickled": len(pickle.dumps(table, MPI.pickle.PROTOCOL)),
                          "broadcasts": BROADCASTS, "messages": MESSAGES}))


main()
