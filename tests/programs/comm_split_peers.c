/* Peers are reported as MPI_COMM_WORLD ranks whatever the communicator: ranks are
 * split in reverse order, then each rank sends to the other through the new
 * communicator and receives with MPI_ANY_SOURCE. Prints the expected peers. */
#include <mpi.h>
#include <stdio.h>

enum { kMessages = 10 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm reversed;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
  int local = 0;
  MPI_Comm_rank(reversed, &local);
  const int world_partner = rank ^ 1;
  const int local_partner = size - 1 - world_partner;
  double x = rank;
  for (int i = 0; i < kMessages && world_partner < size; ++i) {
    if (rank % 2 == 0) {
      MPI_Send(&x, 1, MPI_DOUBLE, local_partner, 0, reversed);
      MPI_Recv(&x, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 0, reversed, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&x, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 0, reversed, MPI_STATUS_IGNORE);
      MPI_Send(&x, 1, MPI_DOUBLE, local_partner, 0, reversed);
    }
  }
  MPI_Comm_free(&reversed);
  if (rank == 0) printf("{\"messages\": %d}\n", kMessages);
  MPI_Finalize();
  return 0;
}
