import sys

from harness._signals import finish, install

install()  # before anything that takes time: a signal from here on exits 130
try:
    from harness._cli.main import main
except KeyboardInterrupt:
    sys.stderr.write("planeval: interrupted\n")
    finish(130)
main()
