program p
  integer :: x, y
!$omp parallel sections
  x = 1
!$omp section
  y = 2
!$omp section
  ! comment
  y = 3
!$omp end parallel sections
!$omp sections
!$omp section
  x = 4
!$omp end sections nowait
end
