      SUBROUTINE S(A, N, M)
      INTEGER N, M, I, J, A(N, M)
C$OMP PARALLEL DO COLLAPSE(2)
      DO 300 I = 1, N
C inner loop
      DO 300 J = 1,
     &  M
  300 A(I, J) = 0
      END
