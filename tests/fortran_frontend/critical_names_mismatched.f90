subroutine s
!$omp critical(a)
  x = 1
!$omp end critical(b)
end subroutine
