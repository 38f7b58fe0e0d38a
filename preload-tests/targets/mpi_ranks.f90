! SPDX-License-Identifier: MIT
! Shapes of mpi_ranks.c in Fortran, whose MPI calls go through the implementation's Fortran
! bindings, chosen by the argument; only rank 0 prints (a result every rank contributed to):
!   pipeline   five rounds of a token passed from rank 0 through each rank to the last, then
!              the last rank's token back to rank 0
!   imbalance  in a region of interest (MPI_Pcontrol(1) to (0)), rank r works 1 + 2r units,
!              then all reduce their results
program mpi_ranks_fortran
   use mpi
   implicit none
   integer :: rank, ranks, ierr, token, round, status(MPI_STATUS_SIZE)
   double precision :: mine, total
   character(len=16) :: shape

   call MPI_Init(ierr)
   call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
   call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierr)
   call get_command_argument(1, shape)
   if (shape == 'pipeline') then
      token = 0
      do round = 1, 5
         if (rank > 0) call MPI_Recv(token, 1, MPI_INTEGER, rank - 1, 5, MPI_COMM_WORLD, &
                                     status, ierr)
         token = token + rank
         if (rank < ranks - 1) call MPI_Send(token, 1, MPI_INTEGER, rank + 1, 5, &
                                             MPI_COMM_WORLD, ierr)
      end do
      if (ranks > 1 .and. rank == ranks - 1) call MPI_Send(token, 1, MPI_INTEGER, 0, 6, &
                                                           MPI_COMM_WORLD, ierr)
      if (ranks > 1 .and. rank == 0) call MPI_Recv(token, 1, MPI_INTEGER, ranks - 1, 6, &
                                                   MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      if (rank == 0) print '(a,i0)', 'pipeline ', token
   else if (shape == 'imbalance') then
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      call MPI_Pcontrol(1)
      mine = work(1 + 2*rank)
      call MPI_Allreduce(mine, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
      call MPI_Pcontrol(0)
      if (rank == 0) print '(a,i0)', 'imbalance ', nint(total)
   end if
   call MPI_Finalize(ierr)

contains

   ! One unit of work: a few milliseconds of arithmetic whose result depends on every step.
   double precision function work(units)
      integer, intent(in) :: units
      double precision, volatile :: x
      integer(8) :: i
      x = 1d0
      do i = 1, units*2000000_8
         x = x*1.0000001d0 + 1d-9
      end do
      work = merge(dble(units), -1d0, x > 0)
   end function work
end program mpi_ranks_fortran
