C     Sections constructs that leave out the first SECTION directive and
C     start with a directive: a user region, an atomic, a critical
C     section. The first section holds that directive and its
C     statements, so its events enclose theirs.
      PROGRAM FIRSTS
      INTEGER COUNTR, GUARD, REGNS
      COUNTR = 0
      GUARD = 0
      REGNS = 0
C$OMP PARALLEL SECTIONS
C$POMP INST BEGIN(FIRST)
      REGNS = REGNS + 1
C$POMP INST END(FIRST)
C$OMP SECTION
      REGNS = REGNS + 2
C$OMP END PARALLEL SECTIONS
!$OMP PARALLEL
!$OMP SECTIONS
!$OMP ATOMIC
      COUNTR = COUNTR + 1
!$OMP SECTION
!$OMP ATOMIC
      COUNTR = COUNTR + 10
!$OMP END SECTIONS
*$OMP SECTIONS
*$OMP CRITICAL (FIRST)
      GUARD = GUARD + 1
*$OMP END CRITICAL (FIRST)
      GUARD = GUARD + 2
*$OMP END SECTIONS
!$OMP END PARALLEL
      PRINT '(3(1X,I0))', COUNTR, GUARD, REGNS
      END
