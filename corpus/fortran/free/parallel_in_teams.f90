! Parallel regions inside host teams. Code strictly inside a teams region
! may call no OpenMP runtime routine, so the number of threads a measured
! parallel region reports when the program does not ask for one is taken
! before the teams construct. default(none) on teams must then list that
! value too, and the variables the inserted code sets in each team are
! private to it.
program parallel_in_teams
  implicit none
  integer, parameter :: teams = 3
  integer :: plain, listed, distributed, i
  plain = 0
  listed = 0
  distributed = 0

!$omp teams num_teams(teams)
!$omp parallel
!$omp single
!$omp atomic
  plain = plain + 1
!$omp end single
!$omp end parallel
!$omp end teams

!$omp teams num_teams(teams) default(none) shared(listed)
!$omp parallel
!$omp masked
!$omp atomic
  listed = listed + 1
!$omp end masked
!$omp end parallel
!$omp end teams

!$omp teams num_teams(teams) thread_limit(4)
!$omp distribute
  do i = 0, 7
!$omp parallel if (mod(i, 2) == 0)
!$omp single
!$omp atomic
    distributed = distributed + i
!$omp end single
!$omp end parallel
  end do
!$omp end distribute
!$omp end teams

  ! Each team runs the region once however many teams it got.
  print '(a,1x,l1)', 'plain', plain > 0 .and. plain <= teams
  print '(a,1x,l1)', 'listed', listed > 0 .and. listed <= teams
  print '(a,1x,i0)', 'distributed', distributed
end program parallel_in_teams
