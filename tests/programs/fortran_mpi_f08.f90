! use mpi_f08 bindings; MPICH sends Init, Finalize, Barrier, Comm_rank and
! Comm_size from here straight to PMPI_ symbols. Counts as in fortran_mpif.f90.
program fortran_mpi_f08
  use mpi_f08
  implicit none
  integer, parameter :: kBarriers = 9, kReduces = 4
  integer :: rank, nranks, i
  double precision :: x, y
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  do i = 1, kBarriers
    call MPI_Barrier(MPI_COMM_WORLD)
  end do
  x = rank
  do i = 1, kReduces
    call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  end do
  if (rank == 0) print '(A,I0,A,I0,A)', '{"barriers": ', kBarriers, ', "allreduces": ', kReduces, '}'
  call MPI_Finalize()
end program fortran_mpi_f08
