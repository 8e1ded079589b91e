# ruff: noqa: E501  (minified inline CSS and JS)
"""The inline stylesheet and script of report.html (no network: everything is in the file)."""

from __future__ import annotations

__all__ = ["CSS", "JS"]

CSS = """
:root{--pass:#1a7f37;--fail:#cf222e;--unparseable:#bc4c00;--missing:#6e7781;--stale:#8250df;
--error:#9a6700;--line:#d0d7de;--muted:#57606a;--bg2:#f6f8fa}
*{box-sizing:border-box}
body{font:14px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI",Helvetica,Arial,sans-serif;
color:#1f2328;margin:0 auto;max-width:1300px;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 8px;border-bottom:1px solid
var(--line);padding-bottom:4px}
.meta{color:var(--muted);font-size:13px}
.warn{background:#fff8c5;border:1px solid #d4a72c;padding:8px 12px;border-radius:6px;margin:8px 0}
.headline{font-size:16px;margin:12px 0}
table{border-collapse:collapse;font-size:13px}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:var(--bg2);position:sticky;top:0}
th code{white-space:nowrap}
.heat tr>:first-child{position:sticky;left:0;background:#fff;z-index:1}
.heat tr:first-child>:first-child{background:var(--bg2)}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td code{white-space:nowrap}
.scroll{overflow-x:auto;max-width:100%}
.heat td.num{min-width:64px}
.chip{display:inline-block;min-width:16px;height:16px;line-height:16px;border-radius:3px;
color:#fff;font-size:11px;text-align:center;margin:0 1px;font-weight:600}
.s-p{background:var(--pass)}.s-f{background:var(--fail)}.s-u{background:var(--unparseable)}
.s-m{background:var(--missing)}.s-s{background:var(--stale)}.s-e{background:var(--error)}
.s-_{background:#eaeef2;color:#57606a}
.legend span{margin-right:12px}
.controls{display:flex;gap:12px;align-items:center;margin:8px 0;flex-wrap:wrap}
.controls input{padding:4px 8px;width:260px}
#cases tr.row{cursor:pointer}#cases tr.row td:first-child{white-space:nowrap}#cases tr.row:hover{background:#f3f6fa}
#cases tr.row td:first-child::before{content:"\\25B8  ";color:var(--muted)}
#cases tr.row.open td:first-child::before{content:"\\25BE  "}
#cases tr.detail>td{background:#fbfcfd;padding:12px}
.model-block{border:1px solid var(--line);border-radius:6px;padding:8px 12px;margin:0 0 10px;background:#fff}
.model-block h4{margin:0 0 6px;font-size:14px}
.viol{color:var(--fail);margin:4px 0;padding-left:18px}
.viol li.warning{color:var(--error)}
.note{color:var(--muted);font-style:italic}
.pager button{margin:0 2px}
code{background:var(--bg2);padding:0 3px;border-radius:3px}
svg text{font-family:inherit}
"""

JS = r"""
(function(){
const D=JSON.parse(document.getElementById('case-data').textContent);
const NAMES={p:'pass',f:'fail',u:'unparseable',m:'missing',s:'stale',e:'error',_:'no row'};
const PAGE=50;let page=0;let rows=D.cases;
const tbody=document.querySelector('#cases tbody');
const el=(t,a,txt)=>{const e=document.createElement(t);if(a)for(const k in a)e.setAttribute(k,a[k]);
 if(txt!==undefined)e.textContent=txt;return e;};
function chip(l){return el('span',{class:'chip s-'+l,title:NAMES[l]},l==='_'?'·':l);}
function cell(str){const td=el('td');if(!str){td.appendChild(el('span',{class:'note'},'–'));return td;}
 let p=0,n=0;for(const c of str){if(c==='p'){p++;n++;}else if(c==='f'||c==='u')n++;}
 const tag=el('div');for(const c of str)tag.appendChild(chip(c));td.appendChild(tag);
 td.appendChild(el('div',{class:'meta'},n?p+'/'+n+' pass':'not counted'));return td;}
function filtered(){const q=document.getElementById('q').value.toLowerCase();
 const f=document.getElementById('only').value;
 return D.cases.filter(c=>{if(q&&!(c.id.toLowerCase().includes(q)||c.tags.join(' ').toLowerCase().includes(q)))return false;
  const all=c.s.join('');
  if(f==='failing')return /[fu]/.test(all);if(f==='flaky')return c.s.some(s=>/p/.test(s)&&/[fu]/.test(s));
  if(f==='notcounted')return /[mse]/.test(all);if(f==='passing')return !/[fumse]/.test(all);return true;});}
function dag(plan,bad){const tasks=plan.tasks||[];if(!tasks.length||tasks.length>80)return null;
 const ids=tasks.map(t=>String(t.id));const idx=new Map(ids.map((x,i)=>[x,i]));
 const deps=tasks.map(t=>(t.depends_on||[]).map(String).filter(d=>idx.has(d)));
 const layer=new Array(tasks.length).fill(0);
 for(let it=0;it<tasks.length;it++){let ch=false;deps.forEach((ds,i)=>ds.forEach(d=>{const j=idx.get(d);
  if(j!==i&&layer[i]<layer[j]+1&&layer[j]+1<tasks.length){layer[i]=layer[j]+1;ch=true;}}));if(!ch)break;}
 const by={};layer.forEach((l,i)=>{(by[l]=by[l]||[]).push(i);});
 const W=150,H=34,GX=50,GY=16;const pos=[];let maxRow=0;
 const anyBack=deps.some((ds,i)=>ds.some(d=>layer[idx.get(d)]>=layer[i]));const TOP=anyBack?44:10;
 Object.keys(by).forEach(l=>{by[l].forEach((i,r)=>{pos[i]=[l*(W+GX)+10,r*(H+GY)+TOP];maxRow=Math.max(maxRow,r);});});
 const nl=Math.max(...layer)+1;const NS='http://www.w3.org/2000/svg';
 const svg=document.createElementNS(NS,'svg');svg.setAttribute('width',nl*(W+GX)+20);
 svg.setAttribute('height',(maxRow+1)*(H+GY)+TOP+10);svg.setAttribute('role','img');
 svg.setAttribute('aria-label','dependency graph');
 const defs=document.createElementNS(NS,'defs');defs.innerHTML='<marker id="ah" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0L10,5L0,10z" fill="#57606a"/></marker><marker id="ahr" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0L10,5L0,10z" fill="#cf222e"/></marker>';svg.appendChild(defs);
 deps.forEach((ds,i)=>ds.forEach(d=>{const j=idx.get(d);const back=layer[j]>=layer[i];
  const ln=document.createElementNS(NS,'path');const [x1,y1]=[pos[j][0]+W,pos[j][1]+H/2];const [x2,y2]=[pos[i][0],pos[i][1]+H/2];
  ln.setAttribute('d',back?`M${pos[j][0]+W/2},${pos[j][1]} C${pos[j][0]+W/2},${pos[j][1]-30} ${pos[i][0]+W/2},${pos[i][1]-30} ${pos[i][0]+W/2},${pos[i][1]}`:`M${x1},${y1} C${x1+25},${y1} ${x2-25},${y2} ${x2},${y2}`);
  ln.setAttribute('fill','none');ln.setAttribute('stroke',back?'#cf222e':'#8c959f');
  if(back)ln.setAttribute('stroke-dasharray','4 3');ln.setAttribute('marker-end',back?'url(#ahr)':'url(#ah)');svg.appendChild(ln);}));
 tasks.forEach((t,i)=>{const g=document.createElementNS(NS,'g');const r=document.createElementNS(NS,'rect');
  r.setAttribute('x',pos[i][0]);r.setAttribute('y',pos[i][1]);r.setAttribute('width',W);r.setAttribute('height',H);
  r.setAttribute('rx',5);r.setAttribute('fill',bad.has(String(t.id))?'#ffebe9':'#ddf4ff');r.setAttribute('stroke','#54aeff');g.appendChild(r);
  const tx=document.createElementNS(NS,'text');tx.setAttribute('x',pos[i][0]+8);tx.setAttribute('y',pos[i][1]+21);
  tx.setAttribute('font-size','12');const s=String(t.id);tx.textContent=s.length>20?s.slice(0,19)+'…':s;
  const ti=document.createElementNS(NS,'title');ti.textContent=s+(t.description?': '+t.description:'');g.appendChild(ti);
  g.appendChild(tx);svg.appendChild(g);});
 return svg;}
function needsText(n){if(!n)return '';if(Array.isArray(n))return n.map(x=>typeof x==='object'?(x.name+' ← '+x.task):String(x)).join(', ');
 return Object.entries(n).map(([k,v])=>k+' ← '+v).join(', ');}
function detail(c){const box=el('div');
 D.models.forEach((m,mi)=>{const s=c.s[mi];if(!s)return;const rep=c.r[mi];const b=el('div',{class:'model-block'});
  const h=el('h4');h.appendChild(el('code',null,m));h.appendChild(document.createTextNode('  '));
  for(const l of s)h.appendChild(chip(l));b.appendChild(h);
  if(!rep){b.appendChild(el('div',{class:'note'},'no plan to show'));box.appendChild(b);return;}
  const [sample,pk,vk,det,failed]=rep;
  b.appendChild(el('div',{class:'meta'},'sample '+sample+' ('+NAMES[s[sample]]+')'+(pk===null&&!det?' — plan left out to keep the file small; see results.jsonl':'')));
  if(det)b.appendChild(el('div',{class:'note'},det));
  if(failed)b.appendChild(el('div',{class:'viol'},'failed checks: '+failed.join(', ')+' (messages left out to keep the file small)'));
  const viol=vk!==null?D.viol[vk]:[];
  if(viol.length){const ul=el('ul',{class:'viol'});viol.forEach(v=>{ul.appendChild(el('li',{class:v.severity||''},
   '['+v.check+(v.severity==='warning'?', warning':'')+'] '+(v.task?v.task+': ':'')+v.message+(v.path?'  ('+v.path+')':'')));});b.appendChild(ul);}
  if(pk!==null){const plan=D.plans[pk];const tasks=plan.tasks||[];
   const t=el('table');const hr=el('tr');['task','description','capabilities','depends on','needs'].forEach(x=>hr.appendChild(el('th',null,x)));t.appendChild(hr);
   tasks.forEach(k=>{const tr=el('tr');[k.id,k.description||'',(k.capabilities||[]).join(', '),(k.depends_on||[]).join(', '),needsText(k.needs)].forEach(x=>tr.appendChild(el('td',null,String(x))));t.appendChild(tr);});
   const wrap=el('div',{class:'scroll'});const g=dag(plan,new Set(viol.filter(v=>v.severity!=='warning'&&v.task).map(v=>String(v.task))));if(g){wrap.appendChild(g);}
   else wrap.appendChild(el('div',{class:'note'},tasks.length?'graph not drawn for more than 80 tasks':'the plan has no tasks'));
   b.appendChild(wrap);const sc=el('div',{class:'scroll'});sc.appendChild(t);b.appendChild(sc);}
  box.appendChild(b);});return box;}
function render(){tbody.textContent='';const start=page*PAGE;rows.slice(start,start+PAGE).forEach(c=>{
 const tr=el('tr',{class:'row'});tr.appendChild(el('td',null,c.id));tr.appendChild(el('td',null,c.tags.join(', ')));
 c.s.forEach(s=>tr.appendChild(cell(s)));tbody.appendChild(tr);
 tr.addEventListener('click',()=>{const nx=tr.nextSibling;if(nx&&nx.classList&&nx.classList.contains('detail')){nx.remove();tr.classList.remove('open');return;}
  const d=el('tr',{class:'detail'});const td=el('td',{colspan:2+D.models.length});td.appendChild(detail(c));d.appendChild(td);
  tr.after(d);tr.classList.add('open');});});
 const pages=Math.max(1,Math.ceil(rows.length/PAGE));
 document.getElementById('pageinfo').textContent='cases '+(rows.length?start+1:0)+'–'+Math.min(rows.length,start+PAGE)+' of '+rows.length+' (page '+(page+1)+' of '+pages+')';
 document.getElementById('prev').disabled=page===0;document.getElementById('next').disabled=page>=pages-1;}
document.getElementById('prev').onclick=()=>{page--;render();};
document.getElementById('next').onclick=()=>{page++;render();};
const upd=()=>{rows=filtered();page=0;render();};
document.getElementById('q').oninput=upd;document.getElementById('only').onchange=upd;
render();
const h=decodeURIComponent(location.hash||'');
if(h.startsWith('#case=')){const id=h.slice(6);document.getElementById('q').value=id;upd();
 const tr=[...tbody.querySelectorAll('tr.row')].find(r=>r.firstChild.textContent===id);
 if(tr){tr.click();if(!/Headless/.test(navigator.userAgent))tr.scrollIntoView({block:'nearest'});}}
})();
"""
