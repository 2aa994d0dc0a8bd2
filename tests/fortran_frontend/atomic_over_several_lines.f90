subroutine s(x, v)
  integer :: x, v
!$omp atomic
  x = x + &
      1
!$omp atomic update
  x = x + 2
!$omp end atomic
!$omp atomic capture
  v = x
  x = x + 1
!$omp end atomic
end subroutine
