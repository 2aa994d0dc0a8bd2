subroutine s
!$omp do
  x = 1
end subroutine
