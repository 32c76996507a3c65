// hiredis, imported only by HailScale.
#include <hiredis/hiredis.h>
