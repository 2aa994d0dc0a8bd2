C     Fixed form: nested labelled DO loops ending on one statement. A loop
C     directive on the inner loop (its end directive implied) is left as
C     written with a warning: its end events would have to follow the
C     inner loop inside the outer one, where no statement can stand. A
C     loop directive on the outer loop, with or without ENDDO, is measured.
      PROGRAM SHARED
      IMPLICIT NONE
      INTEGER N
      PARAMETER (N = 20)
      INTEGER I, J, TOTAL, A(N, N)
      TOTAL = 0
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
C$OMP PARALLEL DO PRIVATE(J) REDUCTION(+:TOTAL)
      DO 400 I = 1, N
      DO 400 J = 1, N
  400 TOTAL = TOTAL + A(I, J)
      IF (TOTAL .NE. 2 * N * N * (N + 1)) ERROR STOP 1
      PRINT '(A, I0)', 'TOTAL = ', TOTAL
      PRINT '(A, I0)', 'A(3, 4) = ', A(3, 4)
      END
