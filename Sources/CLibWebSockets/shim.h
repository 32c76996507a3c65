// libwebsockets (with its OpenSSL generic crypto), imported only by HailNet.
#include <libwebsockets.h>
