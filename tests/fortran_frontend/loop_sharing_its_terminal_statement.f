C     The inner loop of the first nest is the construct's.
      subroutine s(n, a)
      integer n, i, j, a(n, n)
C$OMP PARALLEL PRIVATE(I)
      DO 100 I = 1, N
C$OMP DO
      DO 100 J = 1, N
         A(I, J) = I + J
  100 CONTINUE
C$OMP END PARALLEL
C$OMP PARALLEL
C$OMP DO PRIVATE(J)
      DO 300 I = 1, N
      DO 300 J = 1, N
         A(I, J) = A(I, J) * 2
  300 CONTINUE
C$OMP ENDDO
C$OMP END PARALLEL
      end
