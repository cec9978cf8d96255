// The system's SQLite: Debian's libsqlite3-dev, Homebrew's sqlite, or the SDK on Apple platforms.
#include <sqlite3.h>
