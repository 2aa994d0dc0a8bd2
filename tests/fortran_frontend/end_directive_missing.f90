subroutine s
!$omp parallel
  x = 1
end subroutine
