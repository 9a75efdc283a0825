from mathjudge.cli import main

main()
