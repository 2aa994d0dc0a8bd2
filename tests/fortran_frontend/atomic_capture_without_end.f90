subroutine s(x, v)
!$omp atomic capture
  v = x
  x = x + 1
end subroutine
