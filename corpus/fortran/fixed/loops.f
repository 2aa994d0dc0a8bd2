C     Fixed form: comment lines in column 1 (C, c, *), labelled DO loops
C     (also nested loops sharing a terminal statement), directive
C     continuation lines, statements continued in column 6, atomic,
C     critical, sections, single and code past column 72 (ignored).
      PROGRAM LOOPS
      IMPLICIT NONE
      INTEGER N
      PARAMETER (N = 50)
      INTEGER I, J, TOTAL, COUNT, A(N), B(N, N)
      INTEGER FIRST, SECOND
      TOTAL = 0
      COUNT = 0
C$OMP PARALLEL DO
C$OMP+REDUCTION(+:TOTAL)
      DO 10 I = 1, N
         A(I) = I
         TOTAL = TOTAL + I
   10 CONTINUE
C$OMP END PARALLEL DO
      IF (TOTAL .NE. N * (N + 1) / 2) ERROR STOP 1
c$omp parallel
c$omp do private(j)
      do 20 i = 1, n
      do 20 j = 1, n
   20 b(i, j) = i * j
c$omp end do
*$omp do
      DO 30 I = 1, N
!$OMP ATOMIC
         COUNT = COUNT +
     &           1
   30 CONTINUE
*$omp end do nowait
!$omp critical (bump)
      COUNT = COUNT + 0
!$omp end critical (bump)
c$omp end parallel
      IF (B(3, 4) .NE. 12) ERROR STOP 2
      IF (COUNT .NE. N) ERROR STOP 3
      FIRST = 0
      SECOND = 0
C$OMP PARALLEL SECTIONS
C$OMP SECTION
      FIRST = 1
C$OMP SECTION
      SECOND = 2
C$OMP END PARALLEL SECTIONS
      IF (FIRST + SECOND .NE. 3) ERROR STOP 4                           this is past column 72
C$OMP PARALLEL
C$OMP SINGLE
      FIRST = FIRST + 10
C$OMP END SINGLE
C$OMP END PARALLEL
      PRINT '(A, I0)', 'TOTAL = ', TOTAL
      PRINT '(A, I0)', 'COUNT = ', COUNT
      PRINT '(A, 2I4)', 'SECTIONS: ', FIRST, SECOND
      END
