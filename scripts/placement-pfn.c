// SPDX-License-Identifier: GPL-2.0-or-later
/* data/vm-zen5-6.18-aa-default/placement: see PROVENANCE.md there (gcc -O2 -o pfn scripts/placement-pfn.c) */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>
static uint64_t pfn(void *p){int fd=open("/proc/self/pagemap",O_RDONLY);uint64_t e=0;pread(fd,&e,8,((uintptr_t)p/4096)*8);close(fd);return e&((1ULL<<55)-1);}
int main(int c,char**v){size_t sz=32<<20;if(c<2){fprintf(stderr,"usage: %s HUGE(0|1)\n",v[0]);return 2;}int hp=atoi(v[1]);
for(int r=0;r<6;r++){char*raw=mmap(0,sz*2,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);char*p=(char*)(((uintptr_t)raw+(2<<20)-1)&~((uintptr_t)(2<<20)-1));
madvise(p,sz,hp?MADV_HUGEPAGE:MADV_NOHUGEPAGE);for(size_t i=0;i<sz;i+=4096)p[i]=1;printf("rep %d first pfn %#lx mid %#lx last %#lx\n",r,pfn(p),pfn(p+sz/2),pfn(p+sz-4096));munmap(raw,sz*2);}
}
