// SPDX-License-Identifier: GPL-2.0-or-later
/* data/vm-zen5-6.18-aa-default/placement: see PROVENANCE.md there (gcc -O2 -o place scripts/placement-place.c) */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>
#include <time.h>
static uint64_t pfn(void *p){int fd=open("/proc/self/pagemap",O_RDONLY);uint64_t e=0;pread(fd,&e,8,((uintptr_t)p/4096)*8);close(fd);return e&((1ULL<<55)-1);}
static char *amap(size_t sz,int hp){char*raw=mmap(0,sz+(2<<20),PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);char*p=(char*)(((uintptr_t)raw+(2<<20)-1)&~((uintptr_t)(2<<20)-1));madvise(p,sz,hp?MADV_HUGEPAGE:MADV_NOHUGEPAGE);for(size_t i=0;i<sz;i+=4096)p[i]=1;return p;}
static double chase(char*p,size_t sz){size_t n=sz/4096;size_t*perm=malloc(n*sizeof*perm);for(size_t i=0;i<n;i++)perm[i]=i;srand(1);for(size_t i=n-1;i>0;i--){size_t j=rand()%(i+1);size_t t=perm[i];perm[i]=perm[j];perm[j]=t;}
for(size_t i=0;i<n;i++){size_t a=perm[i],b=perm[(i+1)%n];*(char**)(p+a*4096+(a%64)*64)=p+b*4096+(b%64)*64;}
char**q=(char**)(p+perm[0]*4096+(perm[0]%64)*64);long N=4000000;struct timespec t0,t1;clock_gettime(CLOCK_MONOTONIC,&t0);for(long i=0;i<N;i++)q=(char**)*q;clock_gettime(CLOCK_MONOTONIC,&t1);free(perm);if(!q)puts("");return ((t1.tv_sec-t0.tv_sec)*1e9+(t1.tv_nsec-t0.tv_nsec))/N;}
int main(int c,char**v){size_t sz=32<<20;if(c<2){fprintf(stderr,"usage: %s HUGE(0|1)\n",v[0]);return 2;}int hp=atoi(v[1]);
for(int k=0;k<10;k++){ if(k) amap(48<<20,1); /* ballast, kept */
 char*p=amap(sz,hp);double a=chase(p,sz),b=chase(p,sz);printf("placement %d pfn %#lx: %.1f %.1f ns\n",k,pfn(p),a,b);munmap(p,sz);}
}
