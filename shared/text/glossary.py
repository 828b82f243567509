"""English -> Spanish words of everyday software documentation, for English questions.

A general vocabulary (not built from any question set): the lexical ranking adds the
Spanish words to an English question so it can match Spanish pages.
"""

from __future__ import annotations

_PAIRS = """
access acceso
add agregar añadir
allow permitir
api api
app aplicacion
application aplicacion
apply aplicar
argument argumento
arguments argumentos
async asincrono
asynchronous asincrono
attribute atributo
authenticate autenticar
authentication autenticacion
authorization autorizacion
automatic automatico
background segundo plano
basic basico
body cuerpo
browser navegador
build construir
cache cache
call llamar
change cambiar
check verificar comprobar
class clase
client cliente
close cerrar
code codigo
compare comparar
compression compresion
concurrency concurrencia
config configuracion
configuration configuracion
configure configurar
connect conectar
connection conexion
container contenedor
containers contenedores
cookie cookie
create crear
custom personalizado
data datos
database base datos
date fecha
debug depurar
debugger depurador
declare declarar
default defecto
define definir
delete eliminar borrar
dependencies dependencias
dependency dependencia
deploy desplegar
deployment despliegue
deprecated obsoleto deprecado
description descripcion
different diferente
directory directorio
disable deshabilitar desactivar
docs documentacion
document documento
documentation documentacion
domain dominio
email correo
enable habilitar
encode codificar
encoder codificador
environment entorno
error error
errors errores
event evento
events eventos
example ejemplo
examples ejemplos
exception excepcion
execute ejecutar
extra extra
fake falso
field campo
fields campos
file archivo
files archivos
filter filtrar
first primero
folder carpeta
form formulario
forms formularios
function funcion
functions funciones
generate generar
global global
group agrupar
hash hash
header header cabecera
headers headers cabeceras
hide ocultar
image imagen
images imagenes
include incluir
input entrada
install instalar
instance instancia
integer entero
interactive interactiva
item item
items items
json json
key clave
language lenguaje
length longitud
library libreria
limit limite
list lista
load cargar
log registro
login login
long largo
mark marcar
maximum maximo
message mensaje
messages mensajes
method metodo
migrate migrar
minimum minimo
model modelo
models modelos
module modulo
modules modulos
mount montar
multiple multiples
nested anidado
number numero
object objeto
once vez
open abrir
operation operacion
optional opcional
order orden
output salida
override sobrescribir
page pagina
pages paginas
parameter parametro
parameters parametros
parse parsear
partial parcial
password contraseña
passwords contraseñas
path path ruta
performance rendimiento
permission permiso
permissions permisos
port puerto
prefix prefijo
process proceso
processes procesos
production produccion
protect proteger
proxy proxy
query query consulta
read leer
real real
rebuild reconstruir
rebuilt reconstruido
receive recibir
redirect redirigir
request request peticion
required requerido obligatorio
resource recurso
response response respuesta
restrict restringir
result resultado
return devolver retornar
route ruta
router router
routes rutas
run ejecutar correr
schema esquema
secure seguro
security seguridad
send enviar
serve servir
server servidor
session sesion
set establecer
settings configuraciones
several varios
shut apagar
shutdown apagar
site sitio
size tamaño
slow lento
start iniciar arrancar
startup inicio arranque
static estaticos
status estado
stream transmitir
string string cadena
structure estructura
submodel submodelo
support soporte
syntax sintaxis
tag etiqueta
tags etiquetas
task tarea
tasks tareas
template plantilla
templates plantillas
test prueba test
testing pruebas
tests pruebas tests
text texto
time tiempo
title titulo
token token
tokens tokens
type tipo
types tipos
update actualizar
updates actualizaciones
upload subir
uploaded subido
uploads subidas
url url
user usuario
users usuarios
validate validar
validation validacion
value valor
values valores
variable variable
variables variables
version version
versions versiones
virtual virtual
wait esperar
without sin
worker worker
workers workers
write escribir
"""

EN_TO_ES: dict[str, tuple[str, ...]] = {
    line.split()[0]: tuple(w for w in line.split()[1:] if w != line.split()[0])
    for line in _PAIRS.strip().splitlines()
}
