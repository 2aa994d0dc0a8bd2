C     A fixed-form continuation that splits a name and a number.
      PROGRAM SPLIT_TOKENS
      IMPLICIT NONE
      INTEGER N, I, COUNTER
      PARAMETER (N = 40)
      INTEGER VALUES(N)
      COUNTER = 0
C$OMP PARALLEL DO REDUCTION(+:COUNTER)
      DO I = 1, N
         VALUES(I) = I * 10
     &0
         COUN
     &TER = COUNTER + 1
      END DO
C$OMP END PARALLEL DO
      PRINT '(A, I0, A, I0)', 'counter ', COUNTER, ' last ', VALUES(N)
      IF (VALUES(N) .NE. 4000) STOP 1
      END
