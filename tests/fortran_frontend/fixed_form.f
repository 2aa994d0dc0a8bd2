C     a fixed-form program
      PROGRAM FIX
      INTEGER I, J, A(10,10), S
      INTEGER(8) L
      S = 0
C$OMP PARALLEL DO PRIVATE(J)
C$OMP+REDUCTION(+:S)
      DO 10 I = 1, 10
      DO 10 J = 1,
     &          10
         S = S + I
   10 CONTINUE
*$OMP END PARALLEL DO
!$OMP ATOMIC
      S = S +
     1    1
c$omp critical
      CALL OMP_SET_LOCK(L)
c$omp end critical
      END
