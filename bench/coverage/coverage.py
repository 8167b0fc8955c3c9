# Maps the log points bench/coverage/coverage.mjs recorded to functions and sizes (bench/coverage/run.sh).
import re,json,collections,sys
d=open('named.wasm','rb').read()
def leb(b,i):
    r=s=0
    while True:
        x=b[i];i+=1;r|=(x&0x7f)<<s;s+=7
        if x<0x80: return r,i
i=8;sizes=[];nimports=0;names={}
while i<len(d):
    sid=d[i];i+=1;sz,i=leb(d,i);body=d[i:i+sz]
    if sid==2:
        n,j=leb(body,0)
        for k in range(n):
            l,j=leb(body,j);j+=l;l,j=leb(body,j);j+=l;kind=body[j];j+=1
            if kind==0: _,j=leb(body,j);nimports+=1
            elif kind==1: j+=1; fl,j=leb(body,j); _,j=leb(body,j); 
            elif kind==2: fl,j=leb(body,j); _,j=leb(body,j); (j:=leb(body,j)[1]) if fl&1 else None
            elif kind==3: j+=2
    if sid==10:
        n,j=leb(body,0)
        for k in range(n):
            l,j2=leb(body,j); sizes.append(l+(j2-j)); j=j2+l
    if sid==0:
        l,j=leb(body,0); nm=body[j:j+l].decode(); j+=l
        if nm=='name':
            while j<len(body):
                sub=body[j];j+=1;ssz,j=leb(body,j);
                if sub==1:
                    n,k=leb(body,j)
                    for _ in range(n):
                        idx,k=leb(body,k);l,k=leb(body,k);names[idx]=body[k:k+l].decode('utf8','replace');k+=l
                j+=ssz
    i+=sz
# order of funcs in wat
order=[];ids={}
cur=-1;pending=False;logf=None
for line in open('inst.wat'):
    s=line.strip()
    if s.startswith('(func $'): cur+=1
    elif s.startswith('(import "env" "log_execution"'): logf='call '+s.split('(func ')[1].split()[0]
    elif logf and logf in s: pending=True
    elif pending:
        mm=re.match(r'\(i32\.const (\d+)\)',s)
        if mm: ids[int(mm.group(1))]=cur
        pending=False
cov=json.load(open('cov.json'))
import subprocess
def dem(ns):
    return subprocess.run(['c++filt'],input='\n'.join(ns),capture_output=True,text=True).stdout.split('\n')
def key(n):
    n2=re.sub(r'::h[0-9a-f]{16}$','',n)
    m=re.search(r'(pep_app|envelope|pep_token_worker)::([a-z_0-9]+)(::([A-Za-z_0-9]+))?',n2)
    if m: return m.group(1)+'::'+m.group(2)+(('::'+m.group(4)) if m.group(4) else '')
    n3=n2.lstrip('<&').replace('mut ','')
    m=re.match(r'([A-Za-z_][A-Za-z0-9_]*)',n3); return m.group(1) if m else n2[:15]
hit=set(); paint=set()
for p,l in cov.items():
    for x in l: (paint if p.endswith('@paint') else hit).add(ids[x])
pb=sum(sizes[f] for f in paint)
print('code run before the first segment was painted (either route):',pb)
allnames=dem([names.get(f+nimports,'?') for f in range(len(sizes))])
tot=sum(sizes); h=sum(sizes[f] for f in hit)
print('code bytes (wasm-opt -Oz, names kept):',tot,'run on / or /demo/f:',h,'never run:',tot-h)
for which,sel in (('unhit',lambda f: f not in hit),('hit',lambda f: f in hit),('afterpaint',lambda f: f in hit and f not in paint)):
    L=sorted(((sizes[f],allnames[f]) for f in range(len(sizes)) if sel(f)),reverse=True)
    open(which+'_dem.txt','w').write('\n'.join(f"{s} {n}" for s,n in L))
    g=collections.Counter()
    for s,n in L: g[key(n)]+=s
    open(which+'_groups.txt','w').write('\n'.join(f"{v:8d} {k}" for k,v in g.most_common()))
print('top never-run groups (all in unhit_groups.txt):')
print(open('unhit_groups.txt').read().split('\n')[:25] and '\n'.join(open('unhit_groups.txt').read().split('\n')[:25]))
