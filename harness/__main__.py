from harness._cli.main import main

main()
