# Spanish for <koder-mcp-elicitation>, registered by the demo page at run time
# (registerTranslation("es", text)) to show how a host adds a language. Not shipped in dist/.

## Acciones
mcp-elicitation-action-accept = Enviar
mcp-elicitation-action-reject = Rechazar
mcp-elicitation-action-cancel = Cancelar

## Diálogo
mcp-elicitation-server-unknown = Servidor desconocido
mcp-elicitation-server-from = De { $server }
mcp-elicitation-title-default = Se solicita información
mcp-elicitation-queue = { $position } de { $total }
mcp-elicitation-queue-announce = Solicitud { $position } de { $total }
mcp-elicitation-required-legend = Los campos marcados con * son obligatorios.
mcp-elicitation-reason-label = Motivo del rechazo (opcional)
mcp-elicitation-secret-warning = Este formulario pide algo que parece un secreto. MCP prohíbe a los servidores pedir contraseñas, tokens o claves en un formulario; no escriba aquí secretos reales.
mcp-elicitation-select-placeholder = Elija…
mcp-elicitation-tags-hint = Pulse Intro o coma para añadir.
mcp-elicitation-tags-remove = Quitar { $tag }

## Tiempo límite
mcp-elicitation-timeout_warning = Se cierra en { $seconds } s
mcp-elicitation-timeout-announce = { $seconds ->
    [one] Esta solicitud se cierra en { $seconds } segundo.
   *[other] Esta solicitud se cierra en { $seconds } segundos.
}

## Validación
mcp-elicitation-field_required = Obligatorio
mcp-elicitation-error-required_property = { $property } es obligatorio
mcp-elicitation-error-type = Debe ser de tipo { $expected }
mcp-elicitation-error-min_length = { $limit ->
    [one] Escriba al menos { $limit } carácter
   *[other] Escriba al menos { $limit } caracteres
}
mcp-elicitation-error-max_length = { $limit ->
    [one] Escriba como máximo { $limit } carácter
   *[other] Escriba como máximo { $limit } caracteres
}
mcp-elicitation-error-pattern = No tiene el formato esperado
mcp-elicitation-error-format-email = Escriba una dirección de correo válida
mcp-elicitation-error-format-uri = Escriba una dirección completa, como https://example.com
mcp-elicitation-error-format-date = Escriba una fecha válida
mcp-elicitation-error-format-date_time = Escriba una fecha y hora válidas
mcp-elicitation-error-format-other = Debe ser un { $format } válido
mcp-elicitation-error-minimum = Debe ser como mínimo { $limit }
mcp-elicitation-error-maximum = Debe ser como máximo { $limit }
mcp-elicitation-error-exclusive_minimum = Debe ser mayor que { $limit }
mcp-elicitation-error-exclusive_maximum = Debe ser menor que { $limit }
mcp-elicitation-error-enum = Elija una de las opciones de la lista
mcp-elicitation-error-const = Debe ser el único valor permitido
mcp-elicitation-error-min_items = { $limit ->
    [one] Elija al menos { $limit } elemento
   *[other] Elija al menos { $limit } elementos
}
mcp-elicitation-error-max_items = { $limit ->
    [one] Elija como máximo { $limit } elemento
   *[other] Elija como máximo { $limit } elementos
}
mcp-elicitation-error-unique_items = Los elementos no deben repetirse
mcp-elicitation-error-not_a_number = Escriba un número
mcp-elicitation-error-not_an_integer = Escriba un número entero
mcp-elicitation-error-not_a_date_time = Escriba una fecha y hora válidas

## Modo URL
mcp-elicitation-url_mode-opening = Abriendo página externa
mcp-elicitation-url_mode-title = ¿Abrir una página externa?
mcp-elicitation-url_mode-address = Dirección
mcp-elicitation-url_mode-site = Sitio
mcp-elicitation-url_mode-open = Abrir página
mcp-elicitation-url_mode-note = La página se abre en una pestaña nueva. No se carga nada de ella hasta que elija Abrir página.
mcp-elicitation-url_mode-warning-development = Es una dirección local de desarrollo sin cifrado (http).
mcp-elicitation-url_mode-warning-international = La dirección usa caracteres internacionales, que pueden imitar otro sitio. Revísela con cuidado.
mcp-elicitation-url_mode-blocked-unparsable = Esta dirección no se puede leer, así que no se abrirá.
mcp-elicitation-url_mode-blocked-scheme = Solo se pueden abrir direcciones https seguras.
mcp-elicitation-url_mode-blocked-insecure = Esta dirección no está cifrada (http), así que no se abrirá.
mcp-elicitation-url_mode-blocked-credentials = Esta dirección oculta un nombre de usuario o una contraseña, así que no se abrirá.
mcp-elicitation-url_mode-waiting = Esperando a que termine en la página externa…
mcp-elicitation-url_mode-finished = Ya terminé
mcp-elicitation-url_mode-resume-title = Termine en la página externa
mcp-elicitation-url_mode-resume = Esperando a que termine en { $host }.
mcp-elicitation-url_mode-resume-note = Cuando termine allí, elija Continuar.
mcp-elicitation-url_mode-continue = Continuar
mcp-elicitation-url_mode-open_again = Abrir de nuevo

## En línea, y el resumen que deja al cerrarse
mcp-elicitation-inline-announce = { $server } necesita tu respuesta
mcp-elicitation-summary-accept = Enviado
mcp-elicitation-summary-decline = Rechazado
mcp-elicitation-summary-cancel = Cancelado
mcp-elicitation-summary-timeout = Tiempo agotado
mcp-elicitation-summary-answered_by = Respondido por { $name }
mcp-elicitation-summary-opened = Página abierta: { $host }
mcp-elicitation-summary-reason = Motivo
mcp-elicitation-summary-yes = sí
mcp-elicitation-summary-no = no
mcp-elicitation-summary-hidden = (oculto)
mcp-elicitation-summary-number = { $value }

## The system notification for a request that arrives while the page is hidden (`notify`)
mcp-elicitation-notification-title = { $server } necesita tu respuesta

## Un toque (el atributo one-tap) y "recordar" (_meta.persist de la solicitud)
mcp-elicitation-one_tap-accept = Aceptar
mcp-elicitation-one_tap-yes = Sí
mcp-elicitation-one_tap-no = No
mcp-elicitation-persist-session = Permitir en esta sesión
mcp-elicitation-persist-always = Permitir siempre
mcp-elicitation-remember = Recordar
mcp-elicitation-remember-once = Solo esta vez
mcp-elicitation-remember-session = En esta sesión
mcp-elicitation-remember-always = Siempre
