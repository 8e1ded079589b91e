# ruff: noqa: E501  (minified inline CSS and JS)
"""The inline stylesheet and scripts of report.html and the compare page (no network:
everything is in the file). ``GRAPH_JS`` draws a plan's dependency graph (shared by both
pages); ``JS`` is the report's case table."""

from __future__ import annotations

__all__ = ["COMPARE_JS", "CSS", "GRAPH_JS", "JS"]

CSS = """
:root{--pass:#1a7f37;--fail:#cf222e;--unparseable:#bc4c00;--missing:#6e7781;--stale:#8250df;
--error:#6639ba;--warn:#9a6700;--warnbg:#fff8c5;--line:#d0d7de;--muted:#57606a;--bg2:#f6f8fa;
--add:#dafbe1;--del:#ffebe9;--chg:#fff8c5}
*{box-sizing:border-box}
body{font:14px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI",Helvetica,Arial,sans-serif;
color:#1f2328;margin:0 auto;max-width:1300px;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 8px;border-bottom:1px solid
var(--line);padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}
.meta{color:var(--muted);font-size:13px}
.warn{background:var(--warnbg);border:1px solid #d4a72c;padding:8px 12px;border-radius:6px;margin:8px 0}
.headline{font-size:16px;margin:12px 0}
.verdict{font-size:15px;margin:6px 0;padding:6px 10px;border-left:4px solid var(--line);background:var(--bg2)}
.verdict.sig{border-left-color:var(--pass)}
table{border-collapse:collapse;font-size:13px}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:var(--bg2);position:sticky;top:0}
th code{white-space:nowrap}
.heat tr>:first-child{position:sticky;left:0;background:#fff;z-index:1}
.heat tr:first-child>:first-child{background:var(--bg2)}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td code{white-space:nowrap}
td.w{color:var(--warn)}
.scroll{overflow-x:auto;max-width:100%}
.model-block .scroll{max-width:calc(100vw - 160px)}
.heat td.num{min-width:64px}
.chip{display:inline-block;min-width:16px;height:16px;line-height:16px;border-radius:3px;border:0;padding:0 2px;
color:#fff;font-size:11px;text-align:center;margin:0 1px;font-weight:600;font-family:inherit}
button.chip{cursor:pointer}button.chip.sel{outline:2px solid #0969da;outline-offset:1px}
.s-p{background:var(--pass)}.s-f{background:var(--fail)}.s-u{background:var(--unparseable)}
.s-m{background:var(--missing)}.s-s{background:var(--stale)}.s-e{background:var(--error)}
.s-_{background:#eaeef2;color:#57606a}
.legend span{margin-right:12px}
.controls{display:flex;gap:10px;align-items:center;margin:8px 0;flex-wrap:wrap}
.controls input{padding:4px 8px;width:220px}
#cases{width:100%}#cases tr.row{cursor:pointer}#cases tr.row td:first-child{white-space:nowrap}#cases tr.row:hover{background:#f3f6fa}
#cases tr.row td:first-child::before{content:"\\25B8  ";color:var(--muted)}
#cases tr.row.open td:first-child::before{content:"\\25BE  "}
#cases tr.detail>td{background:#fbfcfd;padding:12px}
.model-block{border:1px solid var(--line);border-radius:6px;padding:8px 12px;margin:0 0 10px;background:#fff}
.model-block h4{margin:0 0 6px;font-size:14px}
.viol{margin:4px 0;padding-left:18px}.viol li{color:var(--fail)}.viol li.warning{color:var(--warn)}
.gone{text-decoration:line-through;color:var(--muted)}
.arg{display:inline-block;margin:0 6px 2px 0;padding:0 3px;border-radius:3px}
.bad-arg{background:#ffebe9;outline:1px solid var(--fail)}.warn-arg{background:#fff8c5;outline:1px solid var(--warn)}
.note{color:var(--muted);font-style:italic}
pre.text{white-space:pre-wrap;word-break:break-word;max-height:320px;overflow:auto;background:var(--bg2);
border:1px solid var(--line);border-radius:4px;padding:6px 8px;font-size:12px;margin:4px 0}
details>summary{cursor:pointer;color:#0969da;margin:4px 0}
.pager button{margin:0 2px}
code{background:var(--bg2);padding:0 3px;border-radius:3px}
svg text{font-family:inherit}
.side{display:grid;grid-template-columns:1fr 1fr;gap:12px}
.side>div{min-width:0;border:1px solid var(--line);border-radius:6px;padding:8px;background:#fff}
.diff li.add{background:var(--add)}.diff li.del{background:var(--del)}.diff li.chg{background:var(--chg)}
.diff{padding-left:18px;margin:4px 0}
.flip{border:1px solid var(--line);border-radius:6px;padding:8px 12px;margin:10px 0}
.up{color:var(--pass)}.down{color:var(--fail)}
"""

GRAPH_JS = r"""
function planGraph(plan,marks){/* marks: {bad, warn, del, add, chg: Sets of task ids; badEdges, addEdges, delEdges: Sets of 'from>to'} */
 marks=marks||{};const S=k=>marks[k]||new Set();
 const tasks=(plan&&plan.tasks)||[];if(!tasks.length||tasks.length>80)return null;
 const ids=tasks.map(t=>String(t.id));const idx=new Map(ids.map((x,i)=>[x,i]));
 const edges=[];tasks.forEach((t,i)=>{(t.depends_on||[]).map(String).forEach(d=>{if(idx.has(d))edges.push([idx.get(d),i,'dep']);});
  const n=t.needs;const origins=Array.isArray(n)?n.map(x=>x&&typeof x==='object'?String(x.task):null):(n&&typeof n==='object'?Object.values(n).map(String):[]);
  origins.forEach(d=>{if(d!==null&&idx.has(d)&&!(t.depends_on||[]).map(String).includes(d))edges.push([idx.get(d),i,'need']);});});
 const layer=new Array(tasks.length).fill(0);
 for(let it=0;it<tasks.length;it++){let ch=false;edges.forEach(([j,i])=>{if(j!==i&&layer[i]<layer[j]+1&&layer[j]+1<tasks.length){layer[i]=layer[j]+1;ch=true;}});if(!ch)break;}
 const by={};layer.forEach((l,i)=>{(by[l]=by[l]||[]).push(i);});
 const W=150,H=34,GX=50,GY=16;const pos=[];let maxRow=0;
 const anyBack=edges.some(([j,i])=>layer[j]>=layer[i]);const TOP=anyBack?44:10;
 Object.keys(by).forEach(l=>{by[l].forEach((i,r)=>{pos[i]=[l*(W+GX)+10,r*(H+GY)+TOP];maxRow=Math.max(maxRow,r);});});
 const nl=Math.max(...layer)+1;const NS='http://www.w3.org/2000/svg';
 const svg=document.createElementNS(NS,'svg');svg.setAttribute('width',nl*(W+GX)+20);
 svg.setAttribute('height',(maxRow+1)*(H+GY)+TOP+10);svg.setAttribute('role','img');svg.setAttribute('class','plan-graph');
 svg.setAttribute('aria-label','dependency graph');
 const uid='m'+Math.random().toString(36).slice(2,8);
 const mk=(id,c)=>'<marker id="'+uid+id+'" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0L10,5L0,10z" fill="'+c+'"/></marker>';
 const defs=document.createElementNS(NS,'defs');defs.innerHTML=mk('n','#8c959f')+mk('r','#cf222e')+mk('g','#1a7f37');svg.appendChild(defs);
 edges.forEach(([j,i,kind])=>{const back=layer[j]>=layer[i];const key=ids[j]+'>'+ids[i];
  const bad=back||S('badEdges').has(key)||S('delEdges').has(key);const added=S('addEdges').has(key);
  const ln=document.createElementNS(NS,'path');const [x1,y1]=[pos[j][0]+W,pos[j][1]+H/2];const [x2,y2]=[pos[i][0],pos[i][1]+H/2];
  ln.setAttribute('d',back?`M${pos[j][0]+W/2},${pos[j][1]} C${pos[j][0]+W/2},${pos[j][1]-30} ${pos[i][0]+W/2},${pos[i][1]-30} ${pos[i][0]+W/2},${pos[i][1]}`:`M${x1},${y1} C${x1+25},${y1} ${x2-25},${y2} ${x2},${y2}`);
  const col=bad?'#cf222e':(added?'#1a7f37':'#8c959f');ln.setAttribute('fill','none');ln.setAttribute('stroke',col);
  ln.setAttribute('stroke-width',bad||added?'2':'1.2');ln.setAttribute('data-edge',key);if(S('delEdges').has(key))ln.setAttribute('class','removed-edge');else if(bad)ln.setAttribute('class','bad-edge');else if(added)ln.setAttribute('class','added-edge');
  if(back||kind==='need')ln.setAttribute('stroke-dasharray','4 3');ln.setAttribute('marker-end','url(#'+uid+(bad?'r':(added?'g':'n'))+')');svg.appendChild(ln);});
 tasks.forEach((t,i)=>{const id=String(t.id);const g=document.createElementNS(NS,'g');const r=document.createElementNS(NS,'rect');
  r.setAttribute('x',pos[i][0]);r.setAttribute('y',pos[i][1]);r.setAttribute('width',W);r.setAttribute('height',H);r.setAttribute('rx',5);
  let fill='#ddf4ff',stroke='#54aeff',cls='task';
  if(S('del').has(id)){fill='#ffebe9';stroke='#cf222e';cls='task removed-task';}
  else if(S('bad').has(id)){fill='#ffebe9';stroke='#cf222e';cls='task bad-task';}else if(S('warn').has(id)){fill='#fff8c5';stroke='#9a6700';cls='task warn-task';}
  else if(S('add').has(id)){fill='#dafbe1';stroke='#1a7f37';cls='task added-task';}else if(S('chg').has(id)){fill='#fff8c5';stroke='#9a6700';cls='task changed-task';}
  r.setAttribute('fill',fill);r.setAttribute('stroke',stroke);g.setAttribute('class',cls);g.setAttribute('data-task',id);g.appendChild(r);
  const tx=document.createElementNS(NS,'text');tx.setAttribute('x',pos[i][0]+8);tx.setAttribute('y',pos[i][1]+21);
  tx.setAttribute('font-size','12');tx.textContent=id.length>20?id.slice(0,19)+'…':id;
  const ti=document.createElementNS(NS,'title');ti.textContent=id+(t.description?': '+t.description:'');g.appendChild(ti);
  g.appendChild(tx);svg.appendChild(g);});
 return svg;}
function violationMarks(plan,viol){const bad=new Set(),warn=new Set(),badEdges=new Set();const tasks=(plan&&plan.tasks)||[];
 (viol||[]).forEach(v=>{const w=v.severity==='warning';if(v.task!==undefined&&v.task!==null)(w?warn:bad).add(String(v.task));
  const m=/^\/tasks\/(\d+)\/(depends_on|needs)\/([^/]+)/.exec(v.path||'');if(m&&!w){const t=tasks[+m[1]];if(!t)return;
   let from=null;if(m[2]==='depends_on'){from=(t.depends_on||[])[+m[3]];}else{const n=t.needs;const x=Array.isArray(n)?n[+m[3]]:(n||{})[m[3]];from=x&&typeof x==='object'?x.task:x;}
   if(from!==undefined&&from!==null)badEdges.add(String(from)+'>'+String(t.id));}});
 return {bad,warn,badEdges};}
"""

JS = r"""
(function(){
const D=JSON.parse(document.getElementById('case-data').textContent);let DD=null;
const detailData=()=>{if(!DD)DD=JSON.parse(document.getElementById('detail-data').textContent);return DD;};
const NAMES={p:'pass',f:'fail',u:'unparseable',m:'missing',s:'stale',e:'error',_:'no row'};
const LET={pass:'p',fail:'f',unparseable:'u',missing:'m',stale:'s',error:'e'};
const PAGE=50;let page=0;let rows=D.cases;const pos=new Map(D.cases.map((c,i)=>[c.id,i]));
const $=id=>document.getElementById(id);const tbody=document.querySelector('#cases tbody');
const el=(t,a,txt)=>{const e=document.createElement(t);if(a)for(const k in a)e.setAttribute(k,a[k]);if(txt!==undefined)e.textContent=txt;return e;};
const nat=(a,b)=>a.localeCompare(b,undefined,{numeric:true,sensitivity:'base'});
function chip(l,tag){return el(tag||'span',{class:'chip s-'+l,title:NAMES[l]},l==='_'?'·':l);}
function cell(str){const td=el('td');if(!str){td.appendChild(el('span',{class:'note'},'–'));return td;}
 let p=0,n=0;for(const c of str){if(c==='p'){p++;n++;}else if(c==='f'||c==='u')n++;}
 const tag=el('div');for(const c of str)tag.appendChild(chip(c));td.appendChild(tag);
 td.appendChild(el('div',{class:'meta'},n?p+'/'+n+' pass':'not counted'));return td;}
D.models.forEach((m,i)=>$('fmodel').appendChild(el('option',{value:String(i)},m)));
D.checks.map((c,i)=>[c,i]).sort((a,b)=>nat(a[0],b[0])).forEach(([c,i])=>$('fcheck').appendChild(el('option',{value:String(i)},c)));
D.tags.map((c,i)=>[c,i]).sort((a,b)=>nat(a[0],b[0])).forEach(([c,i])=>$('ftag').appendChild(el('option',{value:String(i)},c)));
const modelSel=()=>$('fmodel').value==='all'?null:+$('fmodel').value;
function shownModels(){const m=modelSel();return m===null?D.models.map((_,i)=>i):[m];}
function filtered(){const q=$('q').value.toLowerCase();const st=$('fstatus').value;const ck=$('fcheck').value;const tg=$('ftag').value;
 const ms=shownModels();
 let out=D.cases.filter(c=>{if(q&&!(c.id.toLowerCase().includes(q)||c.tags.map(t=>D.tags[t]).join(' ').toLowerCase().includes(q)))return false;
  if(tg!=='all'&&!c.tags.includes(+tg))return false;
  const ss=ms.map(m=>c.s[m]||'');const all=ss.join('');if(!all.replace(/_/g,''))return false;
  if(ck!=='all'&&!ms.some(m=>(c.x[m]||[]).includes(+ck)))return false;
  if(st==='all')return true;if(st==='flaky')return ss.some(s=>/p/.test(s)&&/[fu]/.test(s));
  if(st==='failing')return /[fu]/.test(all);if(st==='allpass')return !/[fumse]/.test(all);
  return all.includes(LET[st]);});
 if($('sort').value==='id')out=out.slice().sort((a,b)=>nat(a.id,b.id));return out;}
function setHash(c,m,k){const parts=['case='+encodeURIComponent(c.id)];if(m!==undefined&&m!==null){parts.push('model='+encodeURIComponent(D.models[m]));if(k!==undefined&&k!==null)parts.push('sample='+k);}
 history.replaceState(null,'','#'+parts.join('&'));}
function text(label,str,open){const d=el('details');if(open)d.open=true;d.appendChild(el('summary',null,label));d.appendChild(el('pre',{class:'text'},str));return d;}
function needsText(n){if(!n)return '';if(Array.isArray(n))return n.map(x=>typeof x==='object'&&x?(x.name+' ← '+x.task):String(x)).join(', ');
 return Object.entries(n).map(([k,v])=>k+' ← '+v).join(', ');}
function argText(a){if(a&&typeof a==='object'&&!Array.isArray(a)){const ks=Object.keys(a);
  if(ks.length===1&&ks[0]==='$result')return '\u2190 '+a.$result;
  if(ks.length===1&&ks[0]==='$concat'&&Array.isArray(a.$concat))return JSON.stringify(a.$concat.map(p=>p&&typeof p==='object'?'{\u2190 '+p.$result+'}':String(p)).join(''));}
 const s=JSON.stringify(a);return s===undefined?String(a):(s.length>80?s.slice(0,79)+'\u2026':s);}
function argsCell(x,i,viol){const td=el('td');const pre='/tasks/'+i+'/arguments';
 const vs=(viol||[]).filter(v=>v.path===pre||(v.path||'').startsWith(pre+'/'));const esc=k=>k.replace(/~/g,'~0').replace(/\//g,'~1');
 Object.entries(x.arguments||{}).forEach(([k,a])=>{const p=pre+'/'+esc(k);const mine=vs.filter(v=>v.path===p||v.path.startsWith(p+'/'));
  const cls='arg'+(mine.some(v=>v.severity!=='warning')?' bad-arg':(mine.length?' warn-arg':''));
  const sp=el('span',{class:cls,'data-arg':k},k+'='+argText(a));if(mine.length)sp.title=mine.map(v=>v.message).join('\n');td.appendChild(sp);});
 vs.filter(v=>v.path===pre).forEach(v=>td.appendChild(el('div',{class:v.severity==='warning'?'warn-arg':'bad-arg'},v.message)));
 return td;}
function sampleView(ci,m,k){const c=D.cases[ci];const dd=detailData();const letter=c.s[m][k];
 const v=el('div',{class:'sample-view','data-model':D.models[m],'data-sample':String(k)});
 v.appendChild(el('div',{class:'meta'},'sample '+k+': '+NAMES[letter]));
 const ref=dd.d[ci][m][k];const pr=dd.pr[ci];
 if(pr>=0)v.appendChild(text('prompt (rendered template)',dd.t[pr],false));
 if(!ref){v.appendChild(el('div',{class:'note'},letter==='_'?'no row for this sample':'detail left out to keep this file small; see results.jsonl'));return v;}
 const [pk,vk,ak,dk]=ref;
 if(dk>=0)v.appendChild(el('div',{class:letter==='u'?'viol':'note'},(letter==='u'?'parse error: ':'')+dd.t[dk]));
 if(ak>=0)v.appendChild(text('raw answer',dd.t[ak],letter==='u'));
 else if('fup'.includes(letter))v.appendChild(el('div',{class:'note'},'the run did not store the raw answer (older run); see the recording'));
 const viol=vk>=0?dd.v[vk]:[];
 if(viol.length){const ul=el('ul',{class:'viol'});viol.forEach(x=>{const w=x.severity==='warning';ul.appendChild(el('li',{class:w?'warning':'error'},
  '['+x.check+(w?', warning':'')+'] '+(x.task?x.task+': ':'')+x.message+(x.path?'  ('+x.path+')':'')));});v.appendChild(ul);}
 if(pk>=0){const plan=dd.p[pk];const tasks=plan.tasks||[];const wrap=el('div',{class:'scroll'});
  const g=planGraph(plan,violationMarks(plan,viol));if(g)wrap.appendChild(g);else wrap.appendChild(el('div',{class:'note'},tasks.length?'graph not drawn for more than 80 tasks':'the plan has no tasks'));v.appendChild(wrap);
  const withArgs=tasks.some(x=>x.arguments&&typeof x.arguments==='object'&&Object.keys(x.arguments).length);
  const t=el('table');const hr=el('tr');['task','description','capabilities','depends on','needs'].concat(withArgs?['arguments']:[]).forEach(x=>hr.appendChild(el('th',null,x)));t.appendChild(hr);
  tasks.forEach((x,i)=>{const tr=el('tr');[x.id,x.description||'',(x.capabilities||[]).join(', '),(x.depends_on||[]).join(', '),needsText(x.needs)].forEach(y=>tr.appendChild(el('td',null,String(y))));
   if(withArgs)tr.appendChild(argsCell(x,i,viol));t.appendChild(tr);});
  const sc=el('div',{class:'scroll'});sc.appendChild(t);v.appendChild(sc);}
 return v;}
function worst(s){for(const l of 'fuesm'){const i=s.indexOf(l);if(i>=0)return i;}return s.indexOf('p')>=0?s.indexOf('p'):0;}
function detail(ci,want){const c=D.cases[ci];const box=el('div');
 shownModels().forEach(m=>{const s=c.s[m];if(!s)return;const b=el('div',{class:'model-block','data-model':D.models[m]});
  const h=el('h4');h.appendChild(el('code',null,D.models[m]));h.appendChild(document.createTextNode('  '));
  let k0=want&&want.model===m&&want.sample!==null&&want.sample<s.length?want.sample:worst(s);
  const slot=el('div');const btns=[];
  [...s].forEach((l,k)=>{const bt=chip(l,'button');bt.setAttribute('data-sample',String(k));bt.title='sample '+k+': '+NAMES[l];btns.push(bt);h.appendChild(bt);
   bt.addEventListener('click',ev=>{ev.stopPropagation();btns.forEach(x=>x.classList.remove('sel'));bt.classList.add('sel');slot.textContent='';slot.appendChild(sampleView(ci,m,k));setHash(c,m,k);});});
  b.appendChild(h);b.appendChild(slot);btns[k0].classList.add('sel');slot.appendChild(sampleView(ci,m,k0));box.appendChild(b);});
 return box;}
function open(tr,ci,want){const d=el('tr',{class:'detail'});const td=el('td',{colspan:2+shownModels().length});td.appendChild(detail(ci,want));d.appendChild(td);
 tr.after(d);tr.classList.add('open');}
function render(){tbody.textContent='';const start=page*PAGE;const ms=shownModels();
 const hr=document.querySelector('#cases thead tr');hr.textContent='';['case','tags'].forEach(x=>hr.appendChild(el('th',null,x)));
 ms.forEach(m=>{const th=el('th');th.appendChild(el('code',null,D.models[m]));hr.appendChild(th);});
 rows.slice(start,start+PAGE).forEach(c=>{const ci=pos.get(c.id);
 const tr=el('tr',{class:'row','data-case':c.id});tr.appendChild(el('td',null,c.id));tr.appendChild(el('td',null,c.tags.map(t=>D.tags[t]).join(', ')));
 ms.forEach(m=>tr.appendChild(cell(c.s[m])));tbody.appendChild(tr);
 tr.addEventListener('click',()=>{const nx=tr.nextSibling;if(nx&&nx.classList&&nx.classList.contains('detail')){nx.remove();tr.classList.remove('open');return;}
  open(tr,ci,null);setHash(c);});});
 const pages=Math.max(1,Math.ceil(rows.length/PAGE));
 $('pageinfo').textContent='cases '+(rows.length?start+1:0)+'–'+Math.min(rows.length,start+PAGE)+' of '+rows.length+' (page '+(page+1)+' of '+pages+')';
 $('prev').disabled=page===0;$('next').disabled=page>=pages-1;}
$('prev').onclick=()=>{page--;render();};$('next').onclick=()=>{page++;render();};
const upd=()=>{rows=filtered();page=0;render();};
$('q').oninput=upd;['fstatus','fcheck','fmodel','ftag','sort'].forEach(id=>$(id).onchange=upd);
function fromHash(){const h=location.hash.slice(1);if(!h)return;const p=new URLSearchParams(h);const id=p.get('case');if(id===null||!pos.has(id))return;
 let i=rows.findIndex(c=>c.id===id);if(i<0){['q'].forEach(x=>$(x).value='');['fstatus','fcheck','fmodel','ftag'].forEach(x=>$(x).value='all');rows=filtered();i=rows.findIndex(c=>c.id===id);}
 page=Math.floor(i/PAGE);render();const tr=[...tbody.querySelectorAll('tr.row')].find(r=>r.getAttribute('data-case')===id);if(!tr)return;
 const mi=p.get('model')!==null?D.models.indexOf(p.get('model')):-1;const k=p.get('sample')!==null?parseInt(p.get('sample'),10):null;
 open(tr,pos.get(id),mi>=0?{model:mi,sample:Number.isInteger(k)?k:null}:null);
 const target=mi>=0?tr.nextSibling.querySelector('.model-block[data-model="'+CSS.escape(D.models[mi])+'"]'):tr;(target||tr).scrollIntoView({block:'start'});}
render();fromHash();window.addEventListener('hashchange',()=>{document.querySelectorAll('tr.detail').forEach(x=>x.remove());fromHash();});
})();
"""

COMPARE_JS = r"""
(function(){
const F=JSON.parse(document.getElementById('flip-data').textContent);
const set=a=>new Set(a||[]);const edgeKeys=a=>new Set((a||[]).map(e=>e[0]+'>'+e[1]));
function draw(det){if(det.getAttribute('data-drawn'))return;det.setAttribute('data-drawn','1');const f=F[+det.getAttribute('data-flip')];
 [['base',f.base,{...violationMarks(f.base,f.bv),del:set(f.diff.removed),delEdges:edgeKeys(f.diff.edges_removed)}],
  ['cand',f.cand,{...violationMarks(f.cand,f.cv),add:set(f.diff.added),chg:set(f.diff.changed.map(x=>x.cand)),addEdges:edgeKeys(f.diff.edges_added)}]].forEach(([side,plan,marks])=>{
  const box=det.querySelector('.graph-'+side);const g=plan?planGraph(plan,marks):null;
  if(g)box.appendChild(g);else{const n=document.createElement('div');n.className='note';n.textContent=plan?'graph not drawn (no tasks, or more than 80)':'no plan (the answer did not parse or no sample counted)';box.appendChild(n);}});}
document.querySelectorAll('details.flip').forEach(d=>{d.addEventListener('toggle',()=>{if(d.open){draw(d);history.replaceState(null,'','#flip='+encodeURIComponent(d.getAttribute('data-key')));}});});
const h=new URLSearchParams(location.hash.slice(1)).get('flip');
if(h!==null){const d=[...document.querySelectorAll('details.flip')].find(x=>x.getAttribute('data-key')===h);if(d){d.open=true;draw(d);d.scrollIntoView({block:'start'});}}
})();
"""
