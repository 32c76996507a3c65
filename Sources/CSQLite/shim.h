// SQLite, imported only by HailStorage.
#include <sqlite3.h>
