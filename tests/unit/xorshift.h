/* xorshift.h: the unit tests' random numbers (Marsaglia's xorshift64), deterministic from
 * the state each test seeds, so that a failure reproduces. */
#ifndef CKT_TEST_XORSHIFT_H
#define CKT_TEST_XORSHIFT_H
#include <stdint.h>

static inline uint64_t xorshift64(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}
#endif
