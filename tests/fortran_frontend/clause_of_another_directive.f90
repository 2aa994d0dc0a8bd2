subroutine s
!$omp single schedule(static)
!$omp end single
!$omp barrier
end subroutine
