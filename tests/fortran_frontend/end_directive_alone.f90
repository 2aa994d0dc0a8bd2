subroutine s
  x = 1
!$omp end parallel
end subroutine
