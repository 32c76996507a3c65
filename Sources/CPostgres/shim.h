// libpq, imported only by HailScale.
#include <libpq-fe.h>
