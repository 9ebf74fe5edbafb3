"""An mpi4py late sender (issues 40 and 43): rank 0 computes 5 ms before each
comm.Send of 8 KiB, rank 1 posts its comm.Recv at once, then both call an
Allreduce, 40 times. Each message starts with the sender's clock at the start of its
Send (CLOCK_MONOTONIC, the same on every rank of one host): rank 1 knows how long
each receive waited, max(0, send start - receive start).

--json: "recv_wait_s" (that truth), "messages", and "completion_excess_s" (time
after the send started beyond the smallest such time: transfer jitter).
Run it with Debian's interpreter, /usr/bin/python3 (python3-mpi4py).
"""
import json
import struct
import sys
import time

from mpi4py import MPI

ITERATIONS = 40
BYTES = 8192
COMPUTE_S = 5e-3


def now():
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def busy_wait(seconds):
    end = now() + seconds
    while now() < end:
        pass


def exchange(comm, rank, buffer):
    """One step; on rank 1, (waited, time after the send started)."""
    if rank == 0:
        busy_wait(COMPUTE_S)
        struct.pack_into("d", buffer, 0, now())
        comm.Send([buffer, MPI.BYTE], dest=1, tag=0)
        return 0.0, None
    began = now()
    comm.Recv([buffer, MPI.BYTE], source=0, tag=0)
    ended = now()
    (sent,) = struct.unpack_from("d", buffer, 0)
    return max(0.0, sent - began), ended - max(sent, began)


def main():
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    buffer = bytearray(BYTES)
    wait, afters = 0.0, []
    comm.Barrier()
    for _ in range(ITERATIONS):
        if rank < 2 and comm.Get_size() >= 2:
            waited, after = exchange(comm, rank, buffer)
            wait += waited
            if after is not None:
                afters.append(after)
        comm.allreduce(1.0, op=MPI.SUM)
    if rank == 1:
        comm.send((wait, sum(afters) - len(afters) * min(afters)), dest=0, tag=1)
    if rank == 0 and comm.Get_size() >= 2:
        wait, excess = comm.recv(source=1, tag=1)
        if "--json" in sys.argv:
            print(json.dumps({"messages": ITERATIONS, "recv_wait_s": wait,
                              "completion_excess_s": excess}))


main()
