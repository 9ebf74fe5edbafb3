! Code regions from Fortran (libmpidle_regions.a): region 'exchange' around kReduces
! Allreduces, its name padded with blanks at the end. MPI_PCONTROL(1) from Fortran
! passes no name, which mpidle must not read even with MPIDLE_PCONTROL=regions.
program fortran_regions
  use mpi
  implicit none
  integer, parameter :: kReduces = 6
  integer :: ierr, rank, i
  double precision :: x, y
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  x = rank
  call MPI_Pcontrol(1)
  call mpidle_region_begin('exchange')
  do i = 1, kReduces
    call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  call mpidle_region_end('exchange   ')
  call MPI_Pcontrol(-1)
  if (rank == 0) print '(A,I0,A)', '{"allreduces": ', kReduces, '}'
  call MPI_Finalize(ierr)
end program fortran_regions
