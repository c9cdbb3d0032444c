import BenchCLI
import Glibc

exit(BenchCommandLine.main(Array(CommandLine.arguments.dropFirst())))
