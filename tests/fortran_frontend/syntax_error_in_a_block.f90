subroutine s
!$omp parallel
  x = = 1
!$omp end parallel
end subroutine
