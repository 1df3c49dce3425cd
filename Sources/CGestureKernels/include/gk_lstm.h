#ifndef GK_LSTM_H
#define GK_LSTM_H

#ifdef __cplusplus
extern "C" {
#endif

/// One forward LSTM step for `batch` columns. `gates` holds 4H x batch pre-activations without the
/// bias, rows ordered [input, forget, output, cell]; they are replaced by their activations. Then
/// `c = f * cPrev + i * g` (cPrev NULL: zero), `tc = tanh(c)`, `h = o * tc`, each H x batch (h with
/// leading dimension `ldh`). Column b is padding while `step < starts[b]`: its c, tc and h are set
/// to zero.
void gk_lstm_forward_step(float *gates, const float *bias, long hidden, long batch, const float *cPrev,
                          float *c, float *tc, float *h, long ldh, const long *starts, long step);

/// One backward LSTM step for `batch` columns. Inputs: the activated gates, tanh(c), cPrev (zeros at
/// the first step; padding columns hold c = 0, so a series' first step reads zeros too), the
/// gradient reaching h from above (`dhIn`) and from the next step (`dhNext`), and the cell gradient
/// from the next step (`dcNext`, updated in place to the one for the previous step). Writes
/// d(loss)/d(pre-activation) to `dGates` (4H x batch, zero for padding columns) and adds its columns
/// to `dBias` (4H), in column order.
void gk_lstm_backward_step(const float *gates, const float *tc, const float *cPrev, const float *dhIn,
                           const float *dhNext, float *dcNext, float *dGates, float *dBias, long hidden,
                           long batch, const long *starts, long step);

/// AdamW update of `count` parameters (moments `m`, `v` updated in place): with `decayMask[i]` 1
/// for decayed weights, `theta -= decay * mask * theta`, then
/// `theta -= stepSize * m / (sqrt(v) / c2root + epsilon)`.
void gk_adamw(float *theta, float *m, float *v, const float *gradient, const float *decayMask, long count,
              float beta1, float beta2, float epsilon, float stepSize, float c2root, float decay);

#ifdef __cplusplus
}
#endif

#endif
