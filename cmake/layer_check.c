// SPDX-License-Identifier: GPL-2.0-or-later
/* The program of CMakeLists.txt's layer checks: it does nothing; what matters
 * is that one layer's every object links with only the layers below it. */
int main(void)
{
	return 0;
}
