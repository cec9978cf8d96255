#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether standard input is a terminal: then the outliner greets the user and prompts for each
/// command; otherwise (commands piped in) it prints only what the commands do.
func standardInputIsTerminal() -> Bool {
  #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
    return isatty(STDIN_FILENO) != 0
  #else
    return false
  #endif
}
