program p
  integer :: x
!$omp parallel
  block
    integer :: y
    y = 1
  end block
!$omp single
  block
    x = 2
  end block
!$omp end single nowait
!$omp critical
  x = 3
  block
  end block
!$omp end critical
!$omp task
!$omp taskgroup
  block
  end block
!$omp end task
end program
