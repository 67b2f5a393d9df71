<#-- THIRD-PARTY.txt of the Sluice archive (license-maven-plugin, add-third-party).
     dependencyMap: each bundled artifact (a MavenProject) with its licence names after merging. -->
Sluice bundles these ${dependencyMap?size} third-party artifacts, as unchanged jars in lib/. Each is
listed with the licence(s) its POM declares, and the licence's URL. The licence and notice files
a jar carries (META-INF/LICENSE*, META-INF/NOTICE*) come with it and apply to it as well.

<#list dependencyMap as e>
<#assign p = e.getKey()/>
${p.groupId}:${p.artifactId}:${p.version}<#if p.name?? && p.name?index_of('Unnamed') == -1> (${p.name})</#if>
<#if p.licenses?size == 0>
<#list e.getValue() as name>
    licence: ${name}
</#list>
<#else>
<#list p.licenses as l>
    licence: ${l.name!"(no name)"} <${l.url!"no URL in the POM"}>
</#list>
</#if>
<#if p.url??>
    project: ${p.url}
</#if>

</#list>
