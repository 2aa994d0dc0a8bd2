subroutine s
!$omp parallel bogus_clause(x)
!$omp end parallel
!$omp barrier
end subroutine
