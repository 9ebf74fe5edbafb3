! mpif.h bindings: 1 Init, 1 Comm_rank, 1 Comm_size, kBarriers Barriers,
! kReduces Allreduces, 1 Finalize per rank.
program fortran_mpif
  implicit none
  include 'mpif.h'
  integer, parameter :: kBarriers = 9, kReduces = 4
  integer :: ierr, rank, nranks, i
  double precision :: x, y
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  do i = 1, kBarriers
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  x = rank
  do i = 1, kReduces
    call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) print '(A,I0,A,I0,A)', '{"barriers": ', kBarriers, ', "allreduces": ', kReduces, '}'
  call MPI_Finalize(ierr)
end program fortran_mpif
