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
<#-- A POM that names its licence by SPDX id alone (uPlot's WebJar: "MIT") gets SPDX's page for it. -->
<#if l.url??>
    licence: ${l.name!"(no name)"} <${l.url}>
<#elseif l.name?? && l.name?matches("[A-Za-z0-9.+-]+")>
    licence: ${l.name} <https://spdx.org/licenses/${l.name}.html>
<#else>
    licence: ${l.name!"(no name)"} <no URL in the POM>
</#if>
</#list>
</#if>
<#if p.url??>
    project: ${p.url}
</#if>

</#list>
