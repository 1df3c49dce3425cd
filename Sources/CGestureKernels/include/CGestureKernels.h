// Umbrella header: a new kernel header is listed here, so incremental builds notice it.
#include "gk_dtw.h"
#include "gk_lstm.h"
#include "gk_minirocket.h"
#include "gk_spring.h"
