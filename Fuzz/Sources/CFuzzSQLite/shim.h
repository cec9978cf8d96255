// The system's SQLite, for the store-file target's own integrity check.
#include <sqlite3.h>
