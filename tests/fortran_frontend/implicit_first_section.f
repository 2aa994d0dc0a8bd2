      program p
      integer x
C$OMP PARALLEL SECTIONS
C$POMP INST BEGIN(work)
      x = 1
C$POMP INST END(work)
C$OMP SECTION
      x = 2
C$OMP END PARALLEL SECTIONS
!$omp sections
!$omp barrier
!$omp section
      x = 3
!$omp end sections
      end
