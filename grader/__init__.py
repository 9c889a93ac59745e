"""The course's homework grader: trusted code that never ships to students and never runs beside their code.

:mod:`grader.sandbox` runs a submission in bubblewrap; :mod:`grader.wire` is the plain data that crosses;
:mod:`grader.runner` is the sandbox's side. See the book's page "Teaching with this book".
"""
