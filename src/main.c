// SPDX-License-Identifier: GPL-2.0-only
/* threadtop entry point (placeholder while the foundation lands). */
#include <stdio.h>

int main(void)
{
	puts("threadtop " TT_VERSION);
	return 0;
}
