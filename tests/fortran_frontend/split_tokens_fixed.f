      SUBROUTINE S(V, N)
      INTEGER N, I, V(N)
C$OMP PARALLEL DO
      DO I = 1, N
         V(I) = I * 10
     &0
      END DO
      END
